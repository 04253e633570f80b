from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.ai_declaration import AiDeclaration
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.change_submission_request_descriptor_type_0 import ChangeSubmissionRequestDescriptorType0





T = TypeVar("T", bound="ChangeSubmissionRequest")



@_attrs_define
class ChangeSubmissionRequest:
    """ 
        Attributes:
            ai_declaration (AiDeclaration | None | Unset):
            descriptor (ChangeSubmissionRequestDescriptorType0 | None | Unset):
            prose (None | str | Unset):
            submit (bool | Unset): Send the version (back) to review once changed.
     """

    ai_declaration: AiDeclaration | None | Unset = UNSET
    descriptor: ChangeSubmissionRequestDescriptorType0 | None | Unset = UNSET
    prose: None | str | Unset = UNSET
    submit: bool | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.change_submission_request_descriptor_type_0 import ChangeSubmissionRequestDescriptorType0 # noqa: PLC0415
        ai_declaration: None | str | Unset
        if isinstance(self.ai_declaration, Unset):
            ai_declaration = UNSET
        elif isinstance(self.ai_declaration, AiDeclaration):
            ai_declaration = self.ai_declaration.value
        else:
            ai_declaration = self.ai_declaration

        descriptor: dict[str, Any] | None | Unset
        if isinstance(self.descriptor, Unset):
            descriptor = UNSET
        elif isinstance(self.descriptor, ChangeSubmissionRequestDescriptorType0):
            descriptor = self.descriptor.to_dict()
        else:
            descriptor = self.descriptor

        prose: None | str | Unset
        if isinstance(self.prose, Unset):
            prose = UNSET
        else:
            prose = self.prose

        submit = self.submit


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if ai_declaration is not UNSET:
            field_dict["aiDeclaration"] = ai_declaration
        if descriptor is not UNSET:
            field_dict["descriptor"] = descriptor
        if prose is not UNSET:
            field_dict["prose"] = prose
        if submit is not UNSET:
            field_dict["submit"] = submit

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.change_submission_request_descriptor_type_0 import ChangeSubmissionRequestDescriptorType0 # noqa: PLC0415
        d = dict(src_dict)
        def _parse_ai_declaration(data: object) -> AiDeclaration | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                ai_declaration_type_1 = AiDeclaration(data)



                return ai_declaration_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AiDeclaration | None | Unset, data)

        ai_declaration = _parse_ai_declaration(d.pop("aiDeclaration", UNSET))


        def _parse_descriptor(data: object) -> ChangeSubmissionRequestDescriptorType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                descriptor_type_0 = ChangeSubmissionRequestDescriptorType0.from_dict(data)



                return descriptor_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ChangeSubmissionRequestDescriptorType0 | None | Unset, data)

        descriptor = _parse_descriptor(d.pop("descriptor", UNSET))


        def _parse_prose(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        prose = _parse_prose(d.pop("prose", UNSET))


        submit = d.pop("submit", UNSET)

        change_submission_request = cls(
            ai_declaration=ai_declaration,
            descriptor=descriptor,
            prose=prose,
            submit=submit,
        )

        return change_submission_request

