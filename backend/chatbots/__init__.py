"""The chatbot builder: a chatbot (configuration + references to collections) built from a
URL (crawl + ingestion as a persisted job), its fields generated from the crawled content,
answering through the chat's answer path. Entry point: `ChatbotService` (service.py)."""
