from enum import StrEnum

class HouseholdRole(StrEnum):
    GUEST = "GUEST"
    MEMBER = "MEMBER"
    OWNER = "OWNER"

    def __str__(self) -> str:
        return str(self.value)
