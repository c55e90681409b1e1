"""The answer path (issue 22, item 8): the router (intents.py, route.py), the analysis route's
answers (analysis_answers.py, compare_answers.py, compose.py), evidence scoring and
abstention (evidence/) and the extractive answerer (extractive.py). The chat service
(backend/chat/service.py) calls it; the API, MCP and chatbots reach it through the chat
service."""
