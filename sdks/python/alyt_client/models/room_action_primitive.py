from enum import StrEnum

class RoomActionPrimitive(StrEnum):
    LOCK = "lock"
    SLIDER = "slider"
    STEPPER = "stepper"
    TOGGLE = "toggle"

    def __str__(self) -> str:
        return str(self.value)
