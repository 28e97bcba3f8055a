// The catalogue the app ships: generated from the native registry at build time.
import listing from "../generated/ops.json";
import { type Catalogue, catalogueFromListing } from "./catalogue";

export const shippedCatalogue: Catalogue = catalogueFromListing(listing);
