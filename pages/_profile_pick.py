"""The author-profile picker of the chat's session settings and the chatbot builder: a
selectbox of the stored profiles (none first). A profile deleted since it was chosen shows
as none."""
import streamlit as st

from backend.chat.profiles import ProfileService
from backend.ui.profiles import choices


def profile_select(rs, current: int | None, key: str, container=st) -> int | None:
    options, labels = choices(ProfileService(rs).list())
    index = options.index(current) if current in options else 0
    return container.selectbox("Author profile", options, index=index, key=key,
                               format_func=labels.get,
                               help="Style rules (tone, address, sentence length, forbidden "
                                    "words, output format) for the answers; the Author "
                                    "profiles page edits them.")
