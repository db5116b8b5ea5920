"""The pure admission engine: simulate admission requests against policies (never imports Django)."""
