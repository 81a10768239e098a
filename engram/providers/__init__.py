"""Model providers, one registry (registry.py): who consolidates, checks writes and embeds.

The offline provider is registered like any other. Importing this package imports nothing.
"""
