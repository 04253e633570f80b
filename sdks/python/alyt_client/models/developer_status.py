from enum import StrEnum

class DeveloperStatus(StrEnum):
    ACTIVE = "ACTIVE"
    PENDING_EMAIL = "PENDING_EMAIL"
    SUSPENDED = "SUSPENDED"

    def __str__(self) -> str:
        return str(self.value)
