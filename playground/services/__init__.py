"""The playground's logic, kept out of views and consumers (which only translate HTTP/WebSocket to calls here)."""
