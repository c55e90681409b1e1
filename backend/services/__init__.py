"""The use cases every front door calls (dashboard pages, CLI, HTTP API, MCP): the service
container (`container.Ragscope`) and one module per concern: search, documents, navigation,
library (collections, uploads as jobs), jobs, debug, deletion, classification."""
