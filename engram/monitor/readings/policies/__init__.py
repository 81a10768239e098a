"""Policy-shaped rule families: protections kept on (switches), CI workflows' permissions, secrets
given a committed fallback. Each module declares its rules (`RULES`); `engram.monitor.rules.registry`
lists it."""
