"""Eyes on the table: frame sources, the dice reader, card recognition, settling. Knows no game rules."""
