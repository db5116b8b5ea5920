"""The Django project and app of the Admission Playground: settings, pages, API, WebSocket routing."""
