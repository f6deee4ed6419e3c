"""The companion's errors: one base class, each leaf also a built-in, each message says what to do."""


class CompanionError(Exception):
    """Base of every error the companion raises on purpose."""


class SettingsError(CompanionError, ValueError):
    """The settings file is missing a value, has a wrong one, or names a field that does not exist."""


class CatalogueError(CompanionError, ValueError):
    """A card catalogue entry is wrong; the message names the file, the card and the field."""


class IllegalAction(CompanionError, ValueError):
    """An action the rules do not allow in this state; the message names the values involved."""
