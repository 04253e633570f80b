from enum import StrEnum

class RunStartType1Kind(StrEnum):
    SCHEDULE = "schedule"

    def __str__(self) -> str:
        return str(self.value)
