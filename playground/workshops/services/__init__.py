"""Workshop logic, kept out of the API views and consumers (which only translate HTTP/WebSocket to calls here)."""
