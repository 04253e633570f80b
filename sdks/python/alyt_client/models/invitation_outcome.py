from enum import StrEnum

class InvitationOutcome(StrEnum):
    ADDED = "added"
    INVITED = "invited"

    def __str__(self) -> str:
        return str(self.value)
