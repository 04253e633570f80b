from enum import StrEnum

class PressCommandCommand(StrEnum):
    PRESS = "press"

    def __str__(self) -> str:
        return str(self.value)
