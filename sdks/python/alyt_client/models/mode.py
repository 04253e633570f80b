from enum import StrEnum

class Mode(StrEnum):
    AWAY = "away"
    HOME = "home"
    OFF = "off"
    SLEEP = "sleep"

    def __str__(self) -> str:
        return str(self.value)
