from enum import StrEnum

class CreatableKind(StrEnum):
    DEV = "DEV"
    LIVE = "LIVE"

    def __str__(self) -> str:
        return str(self.value)
