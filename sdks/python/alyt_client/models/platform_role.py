from enum import StrEnum

class PlatformRole(StrEnum):
    OWNER = "OWNER"
    STAFF = "STAFF"
    SUPPORT = "SUPPORT"

    def __str__(self) -> str:
        return str(self.value)
