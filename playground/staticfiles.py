"""collectstatic publishes what the pages load: the esbuild bundles (static/dist), the plain modules and
styles; not the bundle sources (static/src), the JavaScript tests or the build script."""

from django.contrib.staticfiles.apps import StaticFilesConfig


class BuiltAssetsOnly(StaticFilesConfig):
    ignore_patterns = [*StaticFilesConfig.ignore_patterns, "src", "tests", "build.mjs", "README.md"]
