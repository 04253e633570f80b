from enum import StrEnum

class SignUpStatus(StrEnum):
    PENDING_EMAIL = "PENDING_EMAIL"

    def __str__(self) -> str:
        return str(self.value)
