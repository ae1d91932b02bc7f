"""Renderers: results in, text/HTML out. Nothing here measures."""
