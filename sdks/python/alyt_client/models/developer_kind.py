from enum import StrEnum

class DeveloperKind(StrEnum):
    DEVELOPER = "developer"

    def __str__(self) -> str:
        return str(self.value)
