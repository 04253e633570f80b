from enum import StrEnum

class SetCommandCommand(StrEnum):
    SET = "set"

    def __str__(self) -> str:
        return str(self.value)
