"""The use cases every front door calls (dashboard pages, CLI, HTTP API, MCP): the service
container (`container.Ragscope`) and one module per concern: search, documents (reads),
document_actions (upload, activate, delete, reindex, check), system (status, settings table),
navigation, library (collections, uploads as jobs), jobs, debug, deletion, classification.
docs/architecture.md has the map of the packages and what may import what."""
