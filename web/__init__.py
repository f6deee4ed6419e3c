"""The phone pages, the JSON API and the live updates (Server-Sent Events)."""
