"""The Kubernetes object model the admission engine needs: REST mapping, label selectors, field errors."""
