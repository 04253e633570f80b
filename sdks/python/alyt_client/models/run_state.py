from enum import StrEnum

class RunState(StrEnum):
    FINISHED = "finished"
    RUNNING = "running"

    def __str__(self) -> str:
        return str(self.value)
