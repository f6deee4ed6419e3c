"""The table companion: the games' rules, card catalogues, the session and its event store."""
