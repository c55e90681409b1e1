package gateway

import (
	"encoding/json"
	"net/http"
)

// Reading is one meter value.
type Reading struct {
	MeterID string  `json:"meter_id"`
	Value   float64 `json:"value"`
}

// LatestHandler answers with the latest reading of a meter.
func LatestHandler(store Store) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id := r.URL.Query().Get("meter")
		reading, err := store.Latest(id)
		if err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		json.NewEncoder(w).Encode(reading)
	}
}
