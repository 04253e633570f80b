from enum import StrEnum

class PinType0Kind(StrEnum):
    THING = "thing"

    def __str__(self) -> str:
        return str(self.value)
