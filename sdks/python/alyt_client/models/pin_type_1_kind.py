from enum import StrEnum

class PinType1Kind(StrEnum):
    ROUTINE = "routine"

    def __str__(self) -> str:
        return str(self.value)
