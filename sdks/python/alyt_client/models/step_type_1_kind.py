from enum import StrEnum

class StepType1Kind(StrEnum):
    ROOM = "room"

    def __str__(self) -> str:
        return str(self.value)
