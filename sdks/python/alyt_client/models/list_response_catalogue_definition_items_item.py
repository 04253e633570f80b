from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.ai_declaration import AiDeclaration
from typing import cast
import datetime

if TYPE_CHECKING:
  from ..models.definition_author import DefinitionAuthor
  from ..models.list_response_catalogue_definition_items_item_descriptor import ListResponseCatalogueDefinitionItemsItemDescriptor





T = TypeVar("T", bound="ListResponseCatalogueDefinitionItemsItem")



@_attrs_define
class ListResponseCatalogueDefinitionItemsItem:
    """ A catalogue definition (spec: Catalogue definition).

        Attributes:
            ai_declaration (AiDeclaration): How the connector uses AI (spec: catalogue definition `aiDeclaration`).
            author (DefinitionAuthor): The catalogue definition's author.
            descriptor (ListResponseCatalogueDefinitionItemsItemDescriptor): The connector descriptor of the spec.
            id (str): The connector's id (`connectorId` to connect it; a LIVE key's
                `definitionId`).
            name (str):
            prose (str):
            published_at (datetime.datetime):
            semver (str):
            slug (str):
     """

    ai_declaration: AiDeclaration
    author: DefinitionAuthor
    descriptor: ListResponseCatalogueDefinitionItemsItemDescriptor
    id: str
    name: str
    prose: str
    published_at: datetime.datetime
    semver: str
    slug: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.definition_author import DefinitionAuthor # noqa: PLC0415
        from ..models.list_response_catalogue_definition_items_item_descriptor import ListResponseCatalogueDefinitionItemsItemDescriptor # noqa: PLC0415
        ai_declaration = self.ai_declaration.value

        author = self.author.to_dict()

        descriptor = self.descriptor.to_dict()

        id = self.id

        name = self.name

        prose = self.prose

        published_at = self.published_at.isoformat()

        semver = self.semver

        slug = self.slug


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "aiDeclaration": ai_declaration,
            "author": author,
            "descriptor": descriptor,
            "id": id,
            "name": name,
            "prose": prose,
            "publishedAt": published_at,
            "semver": semver,
            "slug": slug,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.definition_author import DefinitionAuthor # noqa: PLC0415
        from ..models.list_response_catalogue_definition_items_item_descriptor import ListResponseCatalogueDefinitionItemsItemDescriptor # noqa: PLC0415
        d = dict(src_dict)
        ai_declaration = AiDeclaration(d.pop("aiDeclaration"))




        author = DefinitionAuthor.from_dict(d.pop("author"))




        descriptor = ListResponseCatalogueDefinitionItemsItemDescriptor.from_dict(d.pop("descriptor"))




        id = d.pop("id")

        name = d.pop("name")

        prose = d.pop("prose")

        published_at = datetime.datetime.fromisoformat(d.pop("publishedAt"))




        semver = d.pop("semver")

        slug = d.pop("slug")

        list_response_catalogue_definition_items_item = cls(
            ai_declaration=ai_declaration,
            author=author,
            descriptor=descriptor,
            id=id,
            name=name,
            prose=prose,
            published_at=published_at,
            semver=semver,
            slug=slug,
        )


        list_response_catalogue_definition_items_item.additional_properties = d
        return list_response_catalogue_definition_items_item

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
