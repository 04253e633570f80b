from enum import StrEnum

class BlockReason(StrEnum):
    DISABLED = "disabled"
    OPEN = "open"
    UNAVAILABLE = "unavailable"
    UNKNOWN = "unknown"

    def __str__(self) -> str:
        return str(self.value)
