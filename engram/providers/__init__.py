"""Model providers: chat (consolidation, contradiction checks) and embeddings."""
