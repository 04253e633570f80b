from enum import StrEnum

class PresentedAs(StrEnum):
    LIGHT = "light"
    SWITCH = "switch"

    def __str__(self) -> str:
        return str(self.value)
