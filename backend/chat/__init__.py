"""Chat: sessions and streamed answers (`service`), the answer path (`answer`, `sources`,
`prompt`), citation and format checks (`format_check`), tokens and costs (`costs`)."""
