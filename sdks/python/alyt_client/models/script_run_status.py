from enum import StrEnum

class ScriptRunStatus(StrEnum):
    DONE = "DONE"
    FAILED = "FAILED"
    PENDING = "PENDING"
    RUNNING = "RUNNING"
    STOPPED = "STOPPED"

    def __str__(self) -> str:
        return str(self.value)
