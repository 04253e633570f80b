from enum import StrEnum

class ControlGroup(StrEnum):
    DIAGNOSTIC = "diagnostic"
    PRIMARY = "primary"
    SETTINGS = "settings"

    def __str__(self) -> str:
        return str(self.value)
