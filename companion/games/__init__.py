"""One pure rules module per game: new_game, legal_actions, apply, is_over, scores. No I/O here."""
