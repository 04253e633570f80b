from enum import StrEnum

class ReviewState(StrEnum):
    APPROVED = "approved"
    CHANGES_REQUESTED = "changes-requested"
    DEPRECATED = "deprecated"
    DRAFT = "draft"
    PUBLISHED = "published"
    REJECTED = "rejected"
    SUBMITTED = "submitted"

    def __str__(self) -> str:
        return str(self.value)
