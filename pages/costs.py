"""Costs & tokens of chat answers: tokens and cost over time by model, user, session or
collection; latency distribution; most expensive sessions; date filter; CSV export.
Admins see every user's answers, other roles their own. Logic in backend/chat/costs.py."""
from datetime import date, timedelta

import plotly.express as px
import streamlit as st

from backend.chat import costs
from backend.errors import RagscopeError
from backend.llm.pricing import pricing_table
from pages._common import get_rs, md_escape, plain_label, require_page

# Widget keys of this page (prefix "costs.").
COSTS_RANGE = "costs.range"
COSTS_GROUP = "costs.group"
COSTS_CSV = "costs.csv"
GROUP_LABELS = {"model": "Model", "user": "User", "session": "Session",
                "collection": "Collection"}

user = require_page("viewer")
rs = get_rs()
only = None if user.role == "admin" else user.username

st.title("Costs & tokens")
try:
    table = pricing_table(rs.settings.pricing_file)
    st.caption(f"Prices in {md_escape(table.currency)} per million tokens, taken "
               f"{md_escape(table.prices_taken)}. "
               "Local models count as cost 0."
               + ("" if only is None else " You see the answers of your own sessions."))
except RagscopeError as e:  # a broken pricing file: say so, show the rest
    st.warning(f"Pricing table unavailable: {md_escape(e)}")

today = date.today()
c1, c2 = st.columns([2, 1])
picked = c1.date_input("Answers from – to", value=(today - timedelta(days=29), today),
                       max_value=today, key=COSTS_RANGE)
group = c2.selectbox("Group by", costs.DIMENSIONS, format_func=GROUP_LABELS.get, key=COSTS_GROUP)
start, end = (picked if isinstance(picked, (tuple, list)) and len(picked) == 2
              else (picked[0], picked[0]) if isinstance(picked, (tuple, list)) and picked
              else (picked, picked))

rows = costs.usage_rows(rs, start=start, end=end, user=only)
df = costs.frame(rows)
if df.empty:
    st.info("No answers in this period yet. Ask something on the Chat page.")
    st.stop()

t = costs.totals(df)
m = st.columns(5)
m[0].metric("Answers", f"{t['answers']:,}")
m[1].metric("Input tokens", f"{t['tokens_input']:,}")
m[2].metric("Output tokens", f"{t['tokens_output']:,}")
m[3].metric("Cost", f"${t['cost_usd']:.4f}")
m[4].metric("Fallback answers", int(t["fallbacks"]))
if t["unknown_prices"]:
    st.warning(f"{int(t['unknown_prices'])} answer(s) used a model without a price in the pricing "
               "table; their cost is not included.")

agg = costs.by_dimension(df, group)
agg[group] = agg[group].map(lambda v: plain_label(v, 60))
agg["day"] = agg["day"].astype(str)  # one bar per day, not a time axis
label = GROUP_LABELS[group]
left, right = st.columns(2)
with left:
    tok = agg.rename(columns={"tokens_input": "input", "tokens_output": "output"}).melt(
        id_vars=["day", group], value_vars=["input", "output"], var_name="direction",
        value_name="token_count")
    fig = px.bar(tok, x="day", y="token_count", color=group, pattern_shape="direction",
                 title=f"Tokens per day by {label.lower()}",
                 labels={"token_count": "tokens", "day": "", group: label})
    fig.update_xaxes(type="category")
    st.plotly_chart(fig, width="stretch")
with right:
    fig = px.bar(agg, x="day", y="cost_usd", color=group,
                 title=f"Cost per day by {label.lower()} (USD)",
                 labels={"cost_usd": "USD", "day": "", group: label})
    fig.update_xaxes(type="category")
    st.plotly_chart(fig, width="stretch")

left, right = st.columns(2)
with left:
    lat = df.dropna(subset=["latency_ms"]).assign(latency_s=lambda d: d["latency_ms"] / 1000)
    fig = px.histogram(lat, x="latency_s", color="model", nbins=30,
                       title="Answer latency (question to last token)",
                       labels={"latency_s": "seconds", "model": "Model"})
    st.plotly_chart(fig, width="stretch")
with right:
    st.markdown("**Most expensive sessions**")
    top = costs.expensive_sessions(df)
    st.dataframe(top, hide_index=True, column_config={
        "session_title": "Session", "session_uuid": None, "user": "User",
        "answers": "Answers", "tokens_input": "Tokens in", "tokens_output": "Tokens out",
        "cost_usd": st.column_config.NumberColumn("Cost (USD)", format="$%.4f"),
        "last_answer": st.column_config.DatetimeColumn("Last answer")})

with st.expander("All answers in the period"):
    st.dataframe(df.drop(columns=["session", "day", "tokens"]), hide_index=True)
st.download_button("Download CSV", costs.to_csv(rows), file_name=f"chat_costs_{start}_{end}.csv",
                   mime="text/csv", key=COSTS_CSV, icon=":material/download:")
