from enum import StrEnum

class Primitive(StrEnum):
    COLOR = "color"
    COLOR_TEMP = "color_temp"
    MOMENTARY = "momentary"
    READOUT = "readout"
    SELECT = "select"
    SETPOINT = "setpoint"
    SLIDER = "slider"
    STEPPER = "stepper"
    TEXT = "text"
    TOGGLE = "toggle"

    def __str__(self) -> str:
        return str(self.value)
