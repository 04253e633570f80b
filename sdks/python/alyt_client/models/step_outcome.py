from enum import StrEnum

class StepOutcome(StrEnum):
    APPLIED = "applied"
    FAILED = "failed"
    SKIPPED = "skipped"

    def __str__(self) -> str:
        return str(self.value)
