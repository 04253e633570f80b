from enum import StrEnum

class Selection(StrEnum):
    AUTO = "auto"
    EXCLUDE = "exclude"
    INCLUDE = "include"

    def __str__(self) -> str:
        return str(self.value)
