"""`python -m backend search-node start|stop|status`: a local OpenSearch node (or, with
`--nodes N`, a cluster of N nodes) on 127.0.0.1 for RAGSCOPE_KEYWORD_BACKEND=opensearch
(backend/index/search_node, docs/elasticsearch.md)."""
from __future__ import annotations

import argparse
import dataclasses
import json

from backend.config import Settings


def cmd_search_node(a) -> int:
    from backend.index.search_node import SearchCluster, SearchNode

    settings = Settings()
    if a.nodes > 1:
        group = SearchCluster(settings, port=a.port, nodes=a.nodes)
        nodes, url = group.nodes, group.url
    else:
        group = SearchNode(settings, port=a.port, engine=a.engine)
        nodes, url = [group], group.url
    if a.action == "stop":
        stopped = [n.stop() for n in nodes]
        for n, was in zip(nodes, stopped):
            print(f"stopped the search node on 127.0.0.1:{n.port}" if was
                  else f"no search node of ours on 127.0.0.1:{n.port}")
        return 0
    if a.action == "start":
        found = group.start(heap=a.heap, timeout=a.timeout)
        statuses = found if isinstance(found, list) else [found]
    else:
        statuses = [n.status() for n in nodes]
    if a.json:
        print(json.dumps([dataclasses.asdict(st) for st in statuses] if a.nodes > 1
                         else dataclasses.asdict(statuses[0])))
    else:
        for st in statuses:
            print(st.line())
        if a.action == "start":
            print(f"use it: RAGSCOPE_KEYWORD_BACKEND=opensearch RAGSCOPE_OPENSEARCH_URL={url}")
    return 0 if all(st.running for st in statuses) else 1


def register(subparsers: argparse._SubParsersAction) -> None:
    x = subparsers.add_parser(
        "search-node", help="start/stop a local OpenSearch node on 127.0.0.1 for the keyword index")
    x.add_argument("action", choices=("start", "stop", "status"))
    x.add_argument("--port", type=int, default=9200, help="HTTP port (transport: port + 100)")
    x.add_argument("--engine", choices=("opensearch", "elasticsearch"), default="opensearch",
                   help="elasticsearch cannot be assembled from Maven Central (the error says why)")
    x.add_argument("--nodes", type=int, default=1,
                   help="a cluster of N nodes on ports PORT … PORT+N-1 (one replica per index)")
    x.add_argument("--heap", default="512m", help="JVM heap per node (-Xms/-Xmx), e.g. 512m, 1g")
    x.add_argument("--timeout", type=float, default=120.0,
                   help="seconds to wait for the node to become healthy")
    x.add_argument("--json", action="store_true", help="print the status as JSON")
    x.set_defaults(fn=cmd_search_node)
