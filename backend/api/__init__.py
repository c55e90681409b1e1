"""The HTTP API (FastAPI, `backend/api/http.py`) and the MCP tool server
(`backend/api/mcp_server.py`) over the same service layer, with API tokens
(`backend/api/tokens.py`). Started by `python -m backend api` and `python -m backend mcp`."""
