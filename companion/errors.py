"""The companion's errors: one base class, each leaf also a built-in, each message says what to do."""


class CompanionError(Exception):
    """Base of every error the companion raises on purpose."""


class SettingsError(CompanionError, ValueError):
    """The settings file is missing a value, has a wrong one, or names a field that does not exist."""


class CatalogueError(CompanionError, ValueError):
    """A card catalogue entry is wrong; the message names the file, the card and the field."""


class IllegalAction(CompanionError, ValueError):
    """An action the rules do not allow in this state; the message names the values involved."""


class StoreError(CompanionError, LookupError):
    """The event store cannot be opened, or has no such game; the message says which."""


class SessionError(CompanionError, ValueError):
    """A request the session cannot do now (no game, no such seat, nothing to undo); says why."""


class GpioUnavailable(CompanionError, RuntimeError):
    """No GPIO pin factory could be loaded; the message says why and what to do."""


class CalibrationError(CompanionError, ValueError):
    """The calibration file is missing, wrong or stale; the message says how to recalibrate."""


class SourceError(CompanionError, ValueError):
    """A frame source spec is wrong (unknown kind or option, bad value); the message lists the known ones."""


class CameraError(CompanionError, RuntimeError):
    """A camera or other frame source cannot be opened or stopped giving frames; the message says what to do."""


class RequirementError(CompanionError, ValueError):
    """A dice requirement's text is not in the form the catalogue uses (e.g. 'B2 W3 W6 W*' or PANDA)."""
