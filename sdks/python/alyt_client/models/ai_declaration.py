from enum import StrEnum

class AiDeclaration(StrEnum):
    NONE = "none"
    OWN_CLOUD = "own_cloud"
    OWN_LOCAL = "own_local"
    SVC = "svc"

    def __str__(self) -> str:
        return str(self.value)
