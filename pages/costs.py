"""Costs & tokens of chat answers: tokens and latency per model/provider over time (by
model, user, session or collection); answer methods of ragscope itself (extractive,
inventory, rules, word diff, …) with their counts and latency, never listed as models; cost
per day and the most expensive sessions only where a priced model answered; date filter;
CSV export. Admins see every user's answers, other roles their own. Logic in
backend/chat/costs.py."""
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
               "Local models and ragscope's own answer methods cost nothing."
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
priced = costs.has_prices(df)
m = st.columns(5)
m[0].metric("Answers", f"{t['answers']:,}")
m[1].metric("By a language model", f"{t['model_answers']:,}")
m[2].metric("Input tokens", f"{t['tokens_input']:,}")
m[3].metric("Output tokens", f"{t['tokens_output']:,}")
m[4].metric("Cost", f"${t['cost_usd']:.4f}" if priced else "none")
if t["unknown_prices"]:
    st.warning(f"{int(t['unknown_prices'])} answer(s) used a model without a price in the pricing "
               "table; their cost is not included.")
if not priced:
    st.info("No priced model used in this period: every answer came from a local model or "
            "from one of ragscope's answer methods, so there is no cost to chart.",
            icon=":material/savings:")

label = GROUP_LABELS[group]
llm = costs.models(df)
st.subheader("Language models", anchor=False)
if llm.empty:
    st.caption("No language model answered in this period (see the answer methods below).")
else:
    agg = costs.by_dimension(llm, group)
    agg[group] = agg[group].map(lambda v: plain_label(v, 60))
    agg["day"] = agg["day"].astype(str)  # one bar per day, not a time axis
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
        lat = costs.latency_by_day(llm).assign(day=lambda d: d["day"].astype(str))
        fig = px.line(lat, x="day", y="median_s", color="engine", markers=True,
                      hover_data=["answers", "p95_s"],
                      title="Median latency per day by model (question to last token)",
                      labels={"median_s": "seconds", "day": "", "engine": "Model",
                              "p95_s": "95th percentile (s)"})
        fig.update_xaxes(type="category")
        st.plotly_chart(fig, width="stretch")

if priced:
    st.subheader("Cost", anchor=False)
    left, right = st.columns(2)
    with left:
        fig = px.bar(agg, x="day", y="cost_usd", color=group,
                     title=f"Cost per day by {label.lower()} (USD)",
                     labels={"cost_usd": "USD", "day": "", group: label})
        fig.update_xaxes(type="category")
        st.plotly_chart(fig, width="stretch")
    with right:
        st.markdown("**Most expensive sessions**")
        st.dataframe(costs.expensive_sessions(df), hide_index=True, column_config={
            "session_title": "Session", "session_uuid": None, "user": "User",
            "answers": "Answers", "tokens_input": "Tokens in", "tokens_output": "Tokens out",
            "cost_usd": st.column_config.NumberColumn("Cost (USD)", format="$%.4f"),
            "last_answer": st.column_config.DatetimeColumn("Last answer")})

methods = costs.method_table(df)
if not methods.empty:
    st.subheader("Answer methods", anchor=False)
    st.caption("Answers composed by ragscope itself, without a language model: no model "
               "tokens, no cost.")
    left, right = st.columns(2)
    with left:
        st.dataframe(methods, hide_index=True, column_config={
            "share": st.column_config.ProgressColumn("share", format="percent",
                                                     min_value=0.0, max_value=1.0),
            "median_s": st.column_config.NumberColumn("median latency (s)", format="%.2f"),
            "p95_s": st.column_config.NumberColumn("p95 latency (s)", format="%.2f"),
            "last_used": st.column_config.DatetimeColumn("last used")})
    with right:
        used = costs.latency_by_day(costs.methods(df)).assign(day=lambda d: d["day"].astype(str))
        fig = px.bar(used, x="day", y="answers", color="engine",
                     title="Answers per day by answer method",
                     labels={"answers": "answers", "day": "", "engine": "Answer method"})
        fig.update_xaxes(type="category")
        st.plotly_chart(fig, width="stretch")

with st.expander("All answers in the period"):
    st.dataframe(df.drop(columns=["session", "day", "tokens", "kind"]), hide_index=True)
st.download_button("Download CSV", costs.to_csv(rows), file_name=f"chat_costs_{start}_{end}.csv",
                   mime="text/csv", key=COSTS_CSV, icon=":material/download:")
