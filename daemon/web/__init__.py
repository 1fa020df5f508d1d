"""The local web view (issue 24): server, pages, templates and its one data-access module."""
