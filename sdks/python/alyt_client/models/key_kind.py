from enum import StrEnum

class KeyKind(StrEnum):
    DEV = "DEV"
    LIVE = "LIVE"

    def __str__(self) -> str:
        return str(self.value)
