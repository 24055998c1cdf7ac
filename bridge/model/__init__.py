"""The model: the tool contract, its validation, typed ids, and the adapter contract with the data
that crosses it. Pure: it imports only the standard library and pydantic."""
