"""WebSocket URL routes. Empty until the web issue adds the editor and room consumers."""

websocket_urlpatterns: list = []
