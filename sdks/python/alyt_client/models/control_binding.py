from enum import StrEnum

class ControlBinding(StrEnum):
    SETTINGS = "settings"
    STATE = "state"

    def __str__(self) -> str:
        return str(self.value)
